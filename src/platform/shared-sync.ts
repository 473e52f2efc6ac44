/**
 * Shares one expensive flush (an fsync) among concurrent callers. A caller that arrives while a
 * flush runs waits for the next one, because the running one may have started before the caller's
 * write; so every caller is covered by a flush that began after it asked, and many callers cost one
 * flush in flight plus one queued, never one each.
 *
 * @example
 * const syncDir = shareSync(() => fsyncDirectory(dir));
 * await rename(temp, final);
 * await syncDir();
 */
export function shareSync(flush: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const run = flush().finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };
  return () => {
    if (running === undefined) return start();
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}
