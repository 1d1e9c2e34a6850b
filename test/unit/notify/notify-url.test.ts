import { describe, expect, it } from "vitest";
import { guardedLookup, isAllowedAddress, notifyUrlProblem } from "#lib/notify/notify-url.ts";

const deployed = { allowLoopback: false };
const local = { allowLoopback: true };

describe("notify URLs (SSRF)", () => {
  it("deployed: https to public hosts only", () => {
    expect(notifyUrlProblem("https://hooks.example.com/handraise?x=1", deployed)).toBeUndefined();
    expect(notifyUrlProblem("https://203.0.114.9/hook", deployed)).toBeUndefined();
    for (const url of [
      "http://hooks.example.com/",
      "ftp://hooks.example.com/",
      "not a url",
      "https://user:pw@hooks.example.com/",
      "http://127.0.0.1:8080/",
      "https://127.0.0.1/",
      "https://localhost/",
      "https://intranet/",
      "https://10.1.2.3/",
      "https://172.16.0.1/",
      "https://192.168.1.1/",
      "https://169.254.169.254/latest/meta-data/",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://[::1]/",
      "https://[fd00::1]/",
      "https://[fe80::1]/",
      "https://[::ffff:10.0.0.1]/",
      `https://example.com/${"x".repeat(2048)}`,
    ]) {
      expect(notifyUrlProblem(url, deployed), url).toBeDefined();
    }
  });

  it("locally: also http://127.0.0.1 and localhost, still no private network", () => {
    expect(notifyUrlProblem("http://127.0.0.1:4000/hook", local)).toBeUndefined();
    expect(notifyUrlProblem("http://localhost:4000/hook", local)).toBeUndefined();
    expect(notifyUrlProblem("http://192.168.1.1/hook", local)).toBeDefined();
    expect(notifyUrlProblem("http://example.com/hook", local)).toMatch(/https/);
  });

  it("judges every address, mapped IPv4 as IPv4", () => {
    expect(isAllowedAddress("93.184.216.34", deployed)).toBe(true);
    expect(isAllowedAddress("2606:2800:220:1::1", deployed)).toBe(true);
    expect(isAllowedAddress("::ffff:169.254.169.254", deployed)).toBe(false);
    // IPv4 inside IPv6 in its other forms: IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96).
    for (const address of ["::a00:1", "::7f00:1", "::a9fe:a9fe", "::ffff:0:a00:1", "::ffff:0:7f00:1"]) {
      expect(isAllowedAddress(address, deployed), address).toBe(false);
    }
    expect(isAllowedAddress("127.0.0.1", local)).toBe(true);
    expect(isAllowedAddress("10.0.0.1", local)).toBe(false);
  });

  it("refuses, at connection time, a name that resolves to a private address", async () => {
    const lookup = guardedLookup(deployed);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup("localhost", {}, (problem) => resolve(problem)),
    );
    expect(error?.code).toBe("EADDRNOTALLOWED");
    const allowed = await new Promise<string | unknown>((resolve) =>
      guardedLookup(local)("localhost", {}, (_problem, address) => resolve(address)),
    );
    expect(["127.0.0.1", "::1"]).toContain(allowed);
  });
});
