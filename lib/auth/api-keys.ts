/**
 * The keys of the question API and /mcp (docs/api.md, "Keys and scopes"): each has a name and one scope.
 *
 * - `ask`: ask; read, list, wait for and cancel the questions this key asked; /mcp.
 * - `answer`: all of that, and answer or cancel any question — except answer one it asked itself.
 * - `admin`: every route, every question (the operator's key: the `api-key` secret is the key `default`).
 *
 * A question remembers who asked it (`askedBy`: `api:<key name>`), which is what these rules compare.
 */
import { ConfigError } from "../config-error.ts";
import { safeEqual } from "../http/safe-equal.ts";
import type { QuestionRecord } from "../questions/question-record.ts";
import type { ApiKeyScope } from "../secrets/secret-catalog.ts";
import type { Secrets } from "../secrets/secrets.ts";

export type { ApiKeyScope } from "../secrets/secret-catalog.ts";

/** A key as a request presented it: its name and scope (never the key itself). */
export interface ApiKey {
  name: string;
  scope: ApiKeyScope;
}

/** The name of the `api-key` secret's key (HANDRAISE_API_KEY locally), whose scope is `admin`. */
export const DEFAULT_API_KEY_NAME = "default";

/** What a question asked with `key` records as its asker. */
export function askedByOf(key: ApiKey): string {
  return `api:${key.name}`;
}

/**
 * Whether `key` may see the question at all — read it, wait for it, cancel it. An `ask` key sees only the
 * questions it asked; to it every other question does not exist (404). Its answer link goes only to a key
 * that may also answer it (keyAnswerRefusal): the link answers as the owner.
 */
export function maySee(key: ApiKey, record: Pick<QuestionRecord, "askedBy">): boolean {
  return key.scope !== "ask" || record.askedBy === askedByOf(key);
}

/**
 * Why `key` may not answer the question, if it may not: an `ask` key answers nothing
 * (`insufficient_scope`); an `answer` key answers any question but one it asked itself (`self_answer`), so
 * no agent answers its own question. `admin` answers anything.
 */
export function keyAnswerRefusal(
  key: ApiKey,
  record: Pick<QuestionRecord, "askedBy">,
): "insufficient_scope" | "self_answer" | undefined {
  if (key.scope === "ask") return "insufficient_scope";
  if (key.scope === "answer" && record.askedBy === askedByOf(key)) return "self_answer";
  return undefined;
}

/**
 * Tells which key a request presented.
 *
 * @example
 * const key = await keyring.identify(bearerToken); // {name: "ci-agent", scope: "ask"} | undefined
 */
export interface ApiKeyring {
  identify(presented: string): Promise<ApiKey | undefined>;
}

/**
 * The keys this deployment accepts: the `api-key` secret (the key `default`, scope `admin`) and every named
 * key (`api-keys/<name>` = `<scope>:<key>`), read from `secrets` on each request — they cache, so a key
 * added, rotated or removed is seen within their cache age. The presented key is compared with every key,
 * each in constant time, whichever matches: how long a check takes says nothing about which key is close.
 * Two keys with the same value are a configuration error (ConfigError, naming both): which scope would
 * apply could not be told.
 */
export function createApiKeyring(secrets: Secrets): ApiKeyring {
  return {
    async identify(presented) {
      const [adminKey, named] = await Promise.all([secrets.get("api-key"), secrets.getGroup("api-keys")]);
      const keys: (ApiKey & { key: string })[] = [];
      if (adminKey !== undefined) keys.push({ name: DEFAULT_API_KEY_NAME, scope: "admin", key: adminKey });
      for (const [name, value] of Object.entries(named)) {
        if (name === DEFAULT_API_KEY_NAME) {
          throw new ConfigError(
            `The API key name "${DEFAULT_API_KEY_NAME}" is the api-key secret's; give api-keys/${name} another name.`,
          );
        }
        // Checked where it was read (secretProblem): `<scope>:<key>`.
        const colon = value.indexOf(":");
        keys.push({ name, scope: value.slice(0, colon) as ApiKeyScope, key: value.slice(colon + 1) });
      }
      const matches = keys.filter((candidate) => safeEqual(presented, candidate.key));
      if (matches.length > 1) {
        throw new ConfigError(
          `The API keys ${matches.map((k) => `"${k.name}"`).join(" and ")} have the same value; give each its own.`,
        );
      }
      const [match] = matches;
      return match && { name: match.name, scope: match.scope };
    },
  };
}
