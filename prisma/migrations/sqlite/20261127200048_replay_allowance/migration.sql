-- CreateTable
CREATE TABLE "ReplayAllowance" (
    "operator" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "used" INTEGER NOT NULL,

    PRIMARY KEY ("operator", "day")
);
