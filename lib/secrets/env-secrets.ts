import type { SecretName } from "./secret-catalog.ts";
import type { Secrets } from "./secrets.ts";

/**
 * Secrets from the environment (the local stack, tests): values loadConfig has already checked, so a bad
 * one stopped the process before anything could use it.
 */
export function createEnvSecrets(values: Partial<Record<SecretName, string>>): Secrets {
  return { get: async (name) => values[name] };
}
