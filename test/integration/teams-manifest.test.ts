/**
 * `npm run teams:manifest`: the package it writes is a zip with manifest.json (schema 1.30: the bot, its
 * scopes and command, the API's host as a valid domain, the required developer, name, description, icons
 * and accent colour) and two valid PNG icons of the sizes Teams requires; bad input is one line and exit 1,
 * with nothing written.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { crc32, inflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { TeamsManifestError, teamsManifest } from "#lib/channels/teams/teams-manifest.ts";
import { listZipEntries, readZipEntry } from "../template/zip.ts";

const APP_ID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const API_URL = "https://abc123.execute-api.us-east-1.amazonaws.com";
const dir = mkdtempSync(join(tmpdir(), "handraise-teams-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = promisify(execFile);

/** The script as `npm run teams:manifest` runs it (Node with tsx's loader), started from `cwd`. */
async function teamsManifestScript(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "scripts/teams-manifest.ts", ...args],
      { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

interface Png {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  /** RGBA, row by row. */
  pixel(x: number, y: number): [number, number, number, number];
}

/** Reads a PNG the way a viewer must: signature, chunks with valid CRCs, IHDR first, IEND last. */
function readPng(bytes: Buffer): Png {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const typed = bytes.subarray(at + 4, at + 8 + length);
    expect(bytes.readUInt32BE(at + 8 + length), "chunk CRC").toBe(crc32(typed));
    chunks.push({ type: typed.subarray(0, 4).toString("latin1"), data: typed.subarray(4) });
    at += 12 + length;
  }
  expect(chunks[0]?.type).toBe("IHDR");
  expect(chunks.at(-1)).toEqual({ type: "IEND", data: Buffer.alloc(0) });
  const header = chunks[0]?.data ?? Buffer.alloc(13);
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  const rows = inflateSync(Buffer.concat(chunks.filter((c) => c.type === "IDAT").map((c) => c.data)));
  const stride = width * 4 + 1;
  expect(rows.length).toBe(height * stride);
  // Every row unfiltered (filter type 0), so the bytes after it are the pixels.
  for (let y = 0; y < height; y++) expect(rows[y * stride]).toBe(0);
  return {
    width,
    height,
    bitDepth: header.readUInt8(8),
    colorType: header.readUInt8(9),
    pixel: (x, y) => {
      const at = y * stride + 1 + x * 4;
      return [rows[at] ?? -1, rows[at + 1] ?? -1, rows[at + 2] ?? -1, rows[at + 3] ?? -1];
    },
  };
}

function pixelsOf(png: Png): [number, number, number, number][] {
  const all: [number, number, number, number][] = [];
  for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) all.push(png.pixel(x, y));
  return all;
}

// Each test starts Node with tsx: seconds on a busy 2-core machine.
describe("npm run teams:manifest", { timeout: 120_000 }, () => {
  it("writes a zip of manifest.json (schema 1.30, the bot in every scope) and the two icons, ready to upload", async () => {
    const out = join(dir, "handraise-teams.zip");
    const result = await teamsManifestScript(["--app-id", APP_ID, "--url", API_URL, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Wrote ${out}: manifest 1.30`);
    expect(result.stdout).toContain("Upload a custom app");

    const zip = readFileSync(out);
    const entries = listZipEntries(zip);
    // At the root of the zip, as Teams requires: no folder.
    expect(entries.map((entry) => entry.name).sort()).toEqual(["color.png", "manifest.json", "outline.png"]);
    const file = (name: string) => {
      const entry = entries.find((e) => e.name === name);
      if (!entry) throw new Error(`no ${name} in the package`);
      return readZipEntry(zip, entry);
    };

    const manifest = JSON.parse(file("manifest.json").toString("utf8"));
    expect(manifest).toMatchObject({
      $schema: "https://developer.microsoft.com/json-schemas/teams/v1.30/MicrosoftTeams.schema.json",
      manifestVersion: "1.30",
      version: "1.0.0",
      id: APP_ID,
      developer: {
        name: "Handraise",
        websiteUrl: `${API_URL}/`,
        privacyUrl: `${API_URL}/`,
        termsOfUseUrl: `${API_URL}/`,
      },
      name: { short: "Handraise" },
      icons: { color: "color.png", outline: "outline.png" },
      accentColor: expect.stringMatching(/^#[0-9a-fA-F]{6}$/),
      bots: [
        {
          botId: APP_ID,
          scopes: ["personal", "team", "groupChat"],
          commandLists: [{ scopes: ["personal", "team", "groupChat"], commands: [{ title: "skip" }] }],
        },
      ],
      validDomains: ["abc123.execute-api.us-east-1.amazonaws.com"],
    });
    // The schema's limits on what Teams shows.
    expect(manifest.description.short.length).toBeLessThanOrEqual(80);
    expect(manifest.description.full.length).toBeLessThanOrEqual(4000);
    expect(manifest.name.short.length).toBeLessThanOrEqual(30);

    const accent = [1, 3, 5].map((at) => Number.parseInt(manifest.accentColor.slice(at, at + 2), 16));
    const color = readPng(file("color.png"));
    expect([color.width, color.height, color.bitDepth, color.colorType]).toEqual([192, 192, 8, 6]);
    // Opaque throughout: the accent colour at the corners, a white hand in the middle.
    expect(pixelsOf(color).every(([, , , alpha]) => alpha === 255)).toBe(true);
    expect(color.pixel(0, 0)).toEqual([...accent, 255]);
    expect(color.pixel(191, 191)).toEqual([...accent, 255]);
    expect(color.pixel(96, 110)).toEqual([255, 255, 255, 255]);

    const outline = readPng(file("outline.png"));
    expect([outline.width, outline.height, outline.bitDepth, outline.colorType]).toEqual([32, 32, 8, 6]);
    // White on transparent: every pixel is white, only its opacity draws the hand.
    const pixels = pixelsOf(outline);
    expect(pixels.every(([r, g, b]) => r === 255 && g === 255 && b === 255)).toBe(true);
    expect(outline.pixel(0, 0)[3]).toBe(0);
    expect(outline.pixel(31, 31)[3]).toBe(0);
    expect(pixels.filter(([, , , alpha]) => alpha === 255).length).toBeGreaterThan(200);
    expect(pixels.filter(([, , , alpha]) => alpha === 0).length).toBeGreaterThan(200);
  });

  it("a relative --out is the folder npm was started in (INIT_CWD), not the repository's", async () => {
    const result = await teamsManifestScript(["--app-id", APP_ID, "--out", "here.zip"], {
      INIT_CWD: dir,
      HANDRAISE_URL: API_URL,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, "here.zip"))).toBe(true);
    expect(existsSync(join(PROJECT_ROOT, "here.zip"))).toBe(false);
  });

  it("a malformed app id or URL, or a missing one: one line and the usage, exit 1, nothing written", async () => {
    const out = join(dir, "refused.zip");
    const cases: [string[], string][] = [
      [
        ["--app-id", "my-bot", "--url", API_URL],
        "teams:manifest: the app id must be the Azure Bot's Microsoft App ID",
      ],
      [
        ["--app-id", APP_ID, "--url", "http://abc.example"],
        "teams:manifest: the API URL must be an https:// URL",
      ],
      [["--app-id", APP_ID], "teams:manifest: give --url <the stack output HttpApiUrl>"],
      [["--url", API_URL], "teams:manifest: give --app-id"],
      [["--app-id", APP_ID, "--url", API_URL, "--nmae", "x"], "teams:manifest: Unknown option '--nmae'"],
    ];
    for (const [args, message] of cases) {
      const result = await teamsManifestScript([...args, "--out", out]);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr.split("\n")[0]).toContain(message);
      expect(result.stderr).toContain("usage: npm run teams:manifest -- --app-id");
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe("the Teams manifest", () => {
  it("takes its name, version and the developer's pages from the options, within the schema's limits", () => {
    const manifest = teamsManifest({
      appId: APP_ID,
      apiUrl: `${API_URL}/`,
      name: "Acme approvals",
      version: "1.2.3",
      developerName: "Acme",
      websiteUrl: "https://acme.example/",
      privacyUrl: "https://acme.example/privacy",
    });
    expect(manifest).toMatchObject({
      version: "1.2.3",
      name: { short: "Acme approvals", full: "Acme approvals" },
      developer: {
        name: "Acme",
        websiteUrl: "https://acme.example/",
        privacyUrl: "https://acme.example/privacy",
        termsOfUseUrl: "https://acme.example/",
      },
    });
    expect(() => teamsManifest({ appId: APP_ID, apiUrl: API_URL, name: "x".repeat(31) })).toThrow(
      "the name must be 1-30 characters",
    );
    expect(() => teamsManifest({ appId: APP_ID, apiUrl: API_URL, version: "1.0" })).toThrow(
      TeamsManifestError,
    );
    expect(() => teamsManifest({ appId: APP_ID, apiUrl: API_URL, privacyUrl: "ftp://x" })).toThrow(
      "the privacy URL must be an https:// URL",
    );
  });
});
