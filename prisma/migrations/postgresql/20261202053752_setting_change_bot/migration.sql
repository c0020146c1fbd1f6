-- AlterTable
ALTER TABLE "SettingChange" ADD COLUMN     "botId" INTEGER;
