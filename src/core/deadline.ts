/**
 * Bounds on the time of outbound calls (a model's answer, an origin's page, a search's live
 * fetches, the client's requests), with the caller's own signal beside them.
 */

/**
 * A signal that aborts `ms` after it is made, its reason a TimeoutError as AbortSignal.timeout's,
 * or when `signal` does, with that signal's reason. Not `AbortSignal.any([AbortSignal.timeout(ms),
 * signal])`: Node 20's `any` holds its sources weakly, and a timeout signal that nothing else
 * holds is collected before it fires, so the call it bounds goes on past its time (nodejs/node
 * issue 57736; a model call given 500 ms ran its 2 s in CI). Here the timer holds the controller
 * until it fires or `clear` stops it: call `clear` once the work is done. The timer does not keep
 * the process alive by itself, as AbortSignal.timeout's does not.
 */
export function deadline(ms: number, signal?: AbortSignal): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  timer.unref();
  const follow = () => controller.abort(signal?.reason);
  if (signal?.aborted) follow();
  else signal?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', follow);
    },
  };
}
