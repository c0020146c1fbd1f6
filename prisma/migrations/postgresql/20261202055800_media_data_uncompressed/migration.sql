-- A file is read in slices when it is downloaded (substring per chunk): uncompressed,
-- PostgreSQL fetches only the TOAST chunks a slice covers instead of decompressing
-- from the start each time. Media bytes (JPEG, MP4, Opus) do not compress anyway.
-- Applies to files stored from now on.
ALTER TABLE "MediaBlob" ALTER COLUMN "data" SET STORAGE EXTERNAL;
