/** Microsoft Teams' spec: its manifest (owner, secrets) and its settings. */
import { credentialUrl } from "../../config-values.ts";
import { ruleMessage } from "../../validation-messages.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const teamsSpec = defineSpec({
  name: "teams",
  manifest: manifest as ChannelManifest,
  config: {
    variables: {
      /** The Teams bot's Microsoft App ID (a GUID): the audience of inbound tokens, the client of outbound ones. */
      TEAMS_APP_ID: z.optional(
        z.string().check(
          z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
            error: ruleMessage("must be a Microsoft App ID (a GUID)"),
          }),
        ),
      ),
      /** The bot's Entra tenant (a GUID or a domain), whose token endpoint issues the app token. */
      TEAMS_TENANT_ID: z.optional(
        z.string().check(
          z.regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,127}$/, {
            error: ruleMessage("must be a tenant id (GUID) or domain"),
          }),
        ),
      ),
      /** The Bot Connector service URL for a target that names none. */
      TEAMS_API_BASE: z._default(credentialUrl, "https://smba.trafficmanager.net/teams/"),
      /** The Microsoft identity platform (tokens at `<it>/<tenant>/oauth2/v2.0/token`); tests point it at a fake. */
      TEAMS_LOGIN_BASE: z._default(credentialUrl, "https://login.microsoftonline.com"),
      /** The Bot Framework's OpenID metadata, which names the keys inbound tokens are signed with. */
      TEAMS_OPENID_METADATA_URL: z._default(
        credentialUrl,
        "https://login.botframework.com/v1/.well-known/openidconfiguration",
      ),
    },
    settings: (env, need) => ({
      appId: need("TEAMS_APP_ID", env.TEAMS_APP_ID),
      tenantId: need("TEAMS_TENANT_ID", env.TEAMS_TENANT_ID),
      apiBase: env.TEAMS_API_BASE,
      loginBase: env.TEAMS_LOGIN_BASE,
      openIdMetadataUrl: env.TEAMS_OPENID_METADATA_URL,
    }),
  },
});
