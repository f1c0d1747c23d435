-- AlterEnum
ALTER TYPE "IdentitySource" ADD VALUE 'request_id';
