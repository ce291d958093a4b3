-- AlterTable: the origins whose browsers may use the business's publishable keys (the embedded components).
ALTER TABLE "Website" ADD COLUMN     "allowedOrigins" TEXT[] DEFAULT ARRAY[]::TEXT[];
