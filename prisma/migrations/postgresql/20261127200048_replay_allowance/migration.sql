-- CreateTable
CREATE TABLE "ReplayAllowance" (
    "operator" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "used" INTEGER NOT NULL,

    CONSTRAINT "ReplayAllowance_pkey" PRIMARY KEY ("operator","day")
);
