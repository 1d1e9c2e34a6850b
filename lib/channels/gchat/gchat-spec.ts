/** Google Chat's spec: its manifest (owner, secret) and its settings. */
import { credentialUrl } from "../../config-values.ts";
import { ruleMessage } from "../../validation-messages.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const gchatSpec = defineSpec({
  name: "gchat",
  manifest: manifest as ChannelManifest,
  config: {
    variables: {
      /** The Google Cloud project number of the Chat app: the audience of every request token Chat sends. */
      GOOGLE_CHAT_PROJECT_NUMBER: z.optional(
        z
          .string()
          .check(z.regex(/^[0-9]{1,20}$/, { error: ruleMessage("must be a project number (digits)") })),
      ),
      /** The Chat API; tests point it at a fake. */
      GOOGLE_CHAT_API_BASE: z._default(credentialUrl, "https://chat.googleapis.com"),
      /** Where Google publishes the certificates Chat's request tokens are signed with. */
      GOOGLE_CHAT_CERTS_URL: z._default(
        credentialUrl,
        "https://www.googleapis.com/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com",
      ),
      /** Google's OAuth token endpoint, where the service account's key is exchanged for an access token. */
      GOOGLE_OAUTH_TOKEN_URL: z._default(credentialUrl, "https://oauth2.googleapis.com/token"),
    },
    settings: (env, need) => ({
      projectNumber: need("GOOGLE_CHAT_PROJECT_NUMBER", env.GOOGLE_CHAT_PROJECT_NUMBER),
      apiBase: env.GOOGLE_CHAT_API_BASE,
      certsUrl: env.GOOGLE_CHAT_CERTS_URL,
      tokenUrl: env.GOOGLE_OAUTH_TOKEN_URL,
    }),
  },
});
