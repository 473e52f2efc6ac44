/** Whether `error` is SQLite refusing a row that a unique index or constraint already holds. */
export const isUniqueViolation = (error: unknown): boolean =>
  (error as { code?: string } | undefined)?.code === 'SQLITE_CONSTRAINT_UNIQUE';
