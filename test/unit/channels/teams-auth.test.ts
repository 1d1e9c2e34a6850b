/**
 * The Bot Framework key cache over time (the integration test cannot wait 24 hours): a stale key set that
 * cannot be refreshed keeps verifying, a cold one that cannot be fetched is "try again", never "refused"
 * (and, after two failures in a row, not asked for again until a short cooldown is over), and a key set is
 * only ever read over https (or loopback).
 */
import { generateKeyPairSync } from "node:crypto";
import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FAILED_FETCH_COOLDOWN_MS } from "#lib/channels/signing-keys.ts";
import { createTeamsAuth, KeySetUnavailableError, TeamsAuthError } from "#lib/channels/teams/teams-auth.ts";

const APP_ID = "7d3b1a2c-0f4e-4b6a-9c8d-112233445566";
const SERVICE_URL = "https://smba.trafficmanager.net/amer/";
const METADATA_URL = "https://login.botframework.com/v1/.well-known/openidconfiguration";
const HOUR_MS = 60 * 60 * 1000;
const signing = generateKeyPairSync("rsa", { modulusLength: 2048 });
const activity = { channelId: "msteams", serviceUrl: SERVICE_URL };
let refreshFailures: unknown[] = [];

/** The Bot Framework's two documents, or a failure, as `fetch` sees them; counts the calls. */
function stubBotFramework(jwksUri = "https://login.botframework.com/v1/.well-known/keys") {
  const state = { down: false as false | "network" | 503, calls: 0 };
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      state.calls++;
      if (state.down === "network") throw new TypeError("fetch failed");
      if (state.down === 503) return new Response("{}", { status: 503 });
      const body =
        url === METADATA_URL
          ? { jwks_uri: jwksUri }
          : {
              keys: [
                { ...signing.publicKey.export({ format: "jwk" }), kid: "k1", endorsements: ["msteams"] },
              ],
            };
      return new Response(JSON.stringify(body), { status: 200 });
    }),
  );
  return state;
}

async function bearer(nowMs: number, kid = "k1"): Promise<string> {
  const seconds = Math.floor(nowMs / 1000);
  const token = await new SignJWT({ serviceurl: SERVICE_URL })
    .setProtectedHeader({ alg: "RS256", kid })
    .setIssuer("https://api.botframework.com")
    .setAudience(APP_ID)
    .setExpirationTime(seconds + 300)
    .sign(signing.privateKey);
  return `Bearer ${token}`;
}

/** The token check at the clock `now`, reporting failed refreshes to `refreshFailures`. */
const verifier = (now: () => number) =>
  createTeamsAuth({
    appId: APP_ID,
    metadataUrl: METADATA_URL,
    now,
    onRefreshFailed: (error) => refreshFailures.push(error),
  });

describe("The Bot Framework's keys", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    refreshFailures = [];
  });

  it("cold and unreachable (network error or 5xx): KeySetUnavailableError, then fetched once it answers", async () => {
    let now = Date.now();
    const botFramework = stubBotFramework();
    const verify = verifier(() => now);
    botFramework.down = "network";
    await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    // The Bot Framework's retry may come at once: it fetches again.
    botFramework.down = 503;
    await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    expect(botFramework.calls).toBe(2);
    botFramework.down = false;
    now += FAILED_FETCH_COOLDOWN_MS;
    await expect(verify(await bearer(now), activity)).resolves.toMatchObject({ aud: APP_ID });
  });

  it("cold, after two fetches in a row failed: no fetch for the cooldown, still 'try again', then one fetch", async () => {
    let now = Date.now();
    const botFramework = stubBotFramework();
    const verify = verifier(() => now);
    botFramework.down = 503;
    for (let i = 0; i < 2; i++) {
      await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    }
    expect(botFramework.calls).toBe(2);
    // While it cools down, requests fail closed as before (503 at the webhook), and nothing is fetched.
    for (let i = 0; i < 5; i++) {
      await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    }
    now += FAILED_FETCH_COOLDOWN_MS - 1;
    await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    expect(botFramework.calls).toBe(2);
    // Cooled down: one fetch; it fails again, so the next cooldown begins at once.
    now += 1;
    await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    expect(botFramework.calls).toBe(3);
    await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    expect(botFramework.calls).toBe(3);
    // Once it answers, the first request after the cooldown is verified, and the keys are held.
    botFramework.down = false;
    now += FAILED_FETCH_COOLDOWN_MS;
    await expect(verify(await bearer(now), activity)).resolves.toMatchObject({ aud: APP_ID });
    await expect(verify(await bearer(now), activity)).resolves.toMatchObject({ aud: APP_ID });
    expect(botFramework.calls).toBe(5);
  });

  it("cold: concurrent requests share one fetch, and a shared failure counts once", async () => {
    const now = Date.now();
    const botFramework = stubBotFramework();
    const verify = verifier(() => now);
    botFramework.down = 503;
    const tokens = await Promise.all([bearer(now), bearer(now), bearer(now)]);
    const results = await Promise.allSettled(tokens.map((token) => verify(token, activity)));
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(botFramework.calls).toBe(1);
    // One failure so far: the retry still fetches, and it works.
    botFramework.down = false;
    await expect(verify(await bearer(now), activity)).resolves.toMatchObject({ aud: APP_ID });
    expect(botFramework.calls).toBe(3);
  });

  it("past 24 hours: refreshed, and while the refresh fails the keys held still verify", async () => {
    let now = Date.now();
    const botFramework = stubBotFramework();
    const verify = verifier(() => now);
    await verify(await bearer(now), activity);
    const fetched = botFramework.calls;
    now += 25 * HOUR_MS;
    botFramework.down = 503;
    await expect(verify(await bearer(now), activity)).resolves.toMatchObject({ aud: APP_ID });
    expect(botFramework.calls).toBe(fetched + 1);
    expect(refreshFailures).toEqual([expect.any(KeySetUnavailableError)]);
    // The failed refresh is not tried again on every request.
    await verify(await bearer(now), activity);
    expect(botFramework.calls).toBe(fetched + 1);
    // Five minutes on, it is; once it works the set is fresh again.
    now += 5 * 60 * 1000;
    botFramework.down = false;
    await verify(await bearer(now), activity);
    expect(botFramework.calls).toBe(fetched + 3);
  });

  it("an unknown key id: one refresh, then refused (TeamsAuthError), and not fetched again for 5 minutes", async () => {
    let now = Date.now();
    const botFramework = stubBotFramework();
    const verify = verifier(() => now);
    await verify(await bearer(now), activity);
    const fetched = botFramework.calls;
    await expect(verify(await bearer(now, "k9"), activity)).rejects.toBeInstanceOf(TeamsAuthError);
    expect(botFramework.calls).toBe(fetched + 2);
    await expect(verify(await bearer(now, "k8"), activity)).rejects.toBeInstanceOf(TeamsAuthError);
    expect(botFramework.calls).toBe(fetched + 2);
    now += 5 * 60 * 1000;
    await expect(verify(await bearer(now, "k8"), activity)).rejects.toBeInstanceOf(TeamsAuthError);
    expect(botFramework.calls).toBe(fetched + 4);
  });

  it("a key set the metadata names over plain http (not loopback) is not read", async () => {
    const now = Date.now();
    const botFramework = stubBotFramework("http://keys.example/v1/.well-known/keys");
    const verify = verifier(() => now);
    await expect(verify(await bearer(now), activity)).rejects.toBeInstanceOf(KeySetUnavailableError);
    expect(botFramework.calls).toBe(1);
  });
});
