/** Whether `error` is the store refusing a row that a unique index or constraint already holds (SQLite or PostgreSQL). */
export const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
};
