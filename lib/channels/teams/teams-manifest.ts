/**
 * The Teams app manifest of Handraise's bot (`npm run teams:manifest`), in the current schema version
 * Microsoft documents: the bot (the Azure Bot's Microsoft App ID) in personal chats, group chats and teams,
 * the one word people may type to it besides an answer, and the API's host as a valid domain (its answer
 * page). The package's own id is the App ID too, so a newer package (a higher version) updates the same app.
 */

export const TEAMS_MANIFEST_VERSION = "1.30";
export const TEAMS_MANIFEST_SCHEMA = `https://developer.microsoft.com/json-schemas/teams/v${TEAMS_MANIFEST_VERSION}/MicrosoftTeams.schema.json`;
export const TEAMS_COLOR_ICON = { file: "color.png", size: 192 } as const;
export const TEAMS_OUTLINE_ICON = { file: "outline.png", size: 32 } as const;
const ACCENT_COLOR = "#2563EB";
const SCOPES = ["personal", "team", "groupChat"] as const;

/**
 * The bot's command menu: what a person may type besides an answer (lib/questions/reply-parser.ts). In a
 * group chat or a team, Teams puts the bot's mention before it, which is how the bot hears it there.
 */
export const TEAMS_COMMANDS = [
  { title: "skip", description: "Skip the question waiting for you: the agent goes on without your answer" },
];

/** The schema's GUID and version patterns, and its length limits. */
const GUID = /^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
const MAX_SHORT_NAME = 30;
const MAX_DEVELOPER_NAME = 32;

export interface TeamsManifestOptions {
  /** The Azure Bot's Microsoft App ID (TEAMS_APP_ID). */
  appId: string;
  /** The HTTP API's URL (the stack output HttpApiUrl): its host serves the answer page. */
  apiUrl: string;
  /** The app's name in Teams, at most 30 characters. */
  name?: string;
  /** The package's version: a higher one replaces an uploaded package. */
  version?: string;
  developerName?: string;
  /** The developer's pages Teams links to from the app's details; default the API's URL. */
  websiteUrl?: string;
  privacyUrl?: string;
  termsOfUseUrl?: string;
}

/** A value the manifest cannot hold, named with the rule. */
export class TeamsManifestError extends Error {
  override readonly name = "TeamsManifestError";
}

export function teamsManifest(options: TeamsManifestOptions) {
  const appId = options.appId.trim();
  if (!GUID.test(appId)) {
    throw new TeamsManifestError(
      `the app id must be the Azure Bot's Microsoft App ID, a GUID such as 00000000-0000-0000-0000-000000000000, not "${appId}"`,
    );
  }
  const name = (options.name ?? "Handraise").trim();
  if (name.length < 1 || name.length > MAX_SHORT_NAME) {
    throw new TeamsManifestError(`the name must be 1-${MAX_SHORT_NAME} characters (Teams shows it in lists)`);
  }
  const version = options.version ?? "1.0.0";
  if (!SEMVER.test(version)) throw new TeamsManifestError(`the version must be like 1.0.0, not "${version}"`);
  const developerName = (options.developerName ?? name).trim();
  if (developerName.length < 1 || developerName.length > MAX_DEVELOPER_NAME) {
    throw new TeamsManifestError(`the developer name must be 1-${MAX_DEVELOPER_NAME} characters`);
  }
  const api = httpsUrl("the API URL", options.apiUrl);
  const websiteUrl = httpsUrl("the website URL", options.websiteUrl ?? api.origin).href;

  return {
    $schema: TEAMS_MANIFEST_SCHEMA,
    manifestVersion: TEAMS_MANIFEST_VERSION,
    version,
    id: appId,
    developer: {
      name: developerName,
      websiteUrl,
      privacyUrl: httpsUrl("the privacy URL", options.privacyUrl ?? websiteUrl).href,
      termsOfUseUrl: httpsUrl("the terms of use URL", options.termsOfUseUrl ?? websiteUrl).href,
    },
    name: { short: name, full: name },
    description: {
      short: "Questions from your AI agents, answered in chat.",
      full:
        "Handraise lets an AI agent stop at a decision that belongs to a person and ask it here. A question " +
        "comes as a card: tap an option, type an answer in your own words, or skip it, and the agent goes on " +
        "with what you said.",
    },
    icons: { color: TEAMS_COLOR_ICON.file, outline: TEAMS_OUTLINE_ICON.file },
    accentColor: ACCENT_COLOR,
    bots: [
      {
        botId: appId,
        scopes: [...SCOPES],
        isNotificationOnly: false,
        supportsFiles: false,
        commandLists: [{ scopes: [...SCOPES], commands: TEAMS_COMMANDS }],
      },
    ],
    validDomains: [api.host],
  };
}

function httpsUrl(what: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new TeamsManifestError(`${what} must be an https:// URL, not "${value}"`);
  }
  if (url.protocol !== "https:")
    throw new TeamsManifestError(`${what} must be an https:// URL, not "${value}"`);
  return url;
}
