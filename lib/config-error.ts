/**
 * A missing or malformed setting: the message names each bad variable (or secret). Thrown while a process
 * starts, so it refuses to run half-configured; a secret read at run time throws it too.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
