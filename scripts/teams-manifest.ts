/**
 * `npm run teams:manifest -- --app-id <guid> --url <HttpApiUrl> [--name …] [--out handraise-teams.zip]`:
 * writes the Teams app package to upload — manifest.json (lib/channels/teams/teams-manifest.ts) and the two
 * icons, drawn by scripts/lib/teams-app-package.ts. The URL defaults to HANDRAISE_URL. docs/channels.md says
 * where to upload it.
 *
 * Options: --app-id (the Azure Bot's Microsoft App ID; default TEAMS_APP_ID), --url, --name (default
 * Handraise), --out, --app-version (default 1.0.0; raise it to update an uploaded app), --developer,
 * --website-url, --privacy-url, --terms-url (the pages Teams links to; default the API's URL).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { TeamsManifestError } from "#lib/channels/teams/teams-manifest.ts";
import { buildTeamsAppPackage } from "./lib/teams-app-package.ts";

const USAGE =
  "usage: npm run teams:manifest -- --app-id <Microsoft App ID> --url <HttpApiUrl> [--name …] [--out handraise-teams.zip]";

function fail(message: string): never {
  process.stderr.write(`teams:manifest: ${message}\n${USAGE}\n`);
  process.exit(1);
}

let options: Record<string, string | undefined> = {};
try {
  ({ values: options } = parseArgs({
    options: {
      "app-id": { type: "string" },
      url: { type: "string" },
      name: { type: "string" },
      out: { type: "string", default: "handraise-teams.zip" },
      "app-version": { type: "string" },
      developer: { type: "string" },
      "website-url": { type: "string" },
      "privacy-url": { type: "string" },
      "terms-url": { type: "string" },
    },
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const appId = options["app-id"] ?? process.env.TEAMS_APP_ID;
if (!appId) fail("give --app-id <the Azure Bot's Microsoft App ID> (or set TEAMS_APP_ID)");
const apiUrl = options.url ?? process.env.HANDRAISE_URL;
if (!apiUrl) fail("give --url <the stack output HttpApiUrl> (or set HANDRAISE_URL)");

let built: ReturnType<typeof buildTeamsAppPackage>;
try {
  built = buildTeamsAppPackage({
    appId,
    apiUrl,
    ...(options.name !== undefined && { name: options.name }),
    ...(options["app-version"] !== undefined && { version: options["app-version"] }),
    ...(options.developer !== undefined && { developerName: options.developer }),
    ...(options["website-url"] !== undefined && { websiteUrl: options["website-url"] }),
    ...(options["privacy-url"] !== undefined && { privacyUrl: options["privacy-url"] }),
    ...(options["terms-url"] !== undefined && { termsOfUseUrl: options["terms-url"] }),
  });
} catch (error) {
  if (!(error instanceof TeamsManifestError)) throw error;
  fail(error.message);
}
const out = options.out ?? "handraise-teams.zip";
// npm runs scripts in the package's folder; a relative path means the folder npm was started in.
writeFileSync(resolve(process.env.INIT_CWD ?? process.cwd(), out), built.zip);
const { manifest } = built;
process.stdout.write(
  `Wrote ${out}: manifest ${manifest.manifestVersion} (app "${manifest.name.short}" ${manifest.version}, bot ` +
    `${manifest.id} in personal chats, group chats and teams), color.png and outline.png.\n` +
    "Upload it in Teams: Apps → Manage your apps → Upload an app → Upload a custom app (or, for the whole " +
    "organization, in the Teams admin center: Teams apps → Manage apps → Upload new app).\n",
);
