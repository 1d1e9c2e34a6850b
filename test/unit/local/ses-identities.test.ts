/**
 * The local SES's GetEmailIdentity keys identities as SES does: a domain whatever its case, an address by its
 * local part as written and its domain whatever its case.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalSes, startLocalSes } from "#infra/local/ses.ts";

let ses: LocalSes;
beforeAll(async () => {
  ses = await startLocalSes({ host: "127.0.0.1" });
});
afterAll(() => ses?.stop());

const statusOf = async (identity: string) =>
  (await fetch(`${ses.url}/v2/email/identities/${encodeURIComponent(identity)}`)).status;

describe("the local SES's identities", () => {
  it("match a domain in any case, and an address's local part only as written", async () => {
    ses.setIdentity("Example.COM", "absent");
    ses.setIdentity("Approvals@Example.org", "absent");
    expect(await statusOf("example.com")).toBe(404);
    expect(await statusOf("EXAMPLE.com")).toBe(404);
    expect(await statusOf("Approvals@example.ORG")).toBe(404);
    // Another local part is another identity (verified, as every identity not set is).
    expect(await statusOf("approvals@example.org")).toBe(200);
  });
});
