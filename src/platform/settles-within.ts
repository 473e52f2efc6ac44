/**
 * Waits for a promise at most `ms`, for the waits that must end even when what they wait for
 * never does (a commit stuck in a hung fsync). It never cancels what it waits for: past the
 * bound, that goes on and settles on its own.
 *
 * @example
 * if (!(await settlesWithin(transaction.replied, 5_000))) log.warn('no reply in time');
 */
export async function settlesWithin(pending: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([pending.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
