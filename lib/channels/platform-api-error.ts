/** A chat platform's API refused a call or could not be reached in time. */
export class PlatformApiError extends Error {
  override readonly name = "PlatformApiError";
  constructor(
    readonly platform: string,
    readonly method: string,
    readonly status: number | undefined,
    message: string,
  ) {
    super(`${platform} ${method} failed: ${message}`);
  }
}

/** How long one platform API call may take: the webhook must still answer well inside 3 s. */
export const PLATFORM_CALL_TIMEOUT_MS = 2_000;
