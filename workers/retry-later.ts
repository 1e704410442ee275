/**
 * Thrown by a handler whose work is not due yet (a delayed job that fired early by our clock).
 * The worker host puts the job back, delayed by `delayMs`, without spending one of its attempts:
 * being early is not a failure, and counting it as one could exhaust the retries before the
 * work is even due.
 */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}
