/** Discord's spec: its manifest (owner, secrets) and its settings. */
import { httpUrl } from "../../config-values.ts";
import { ruleMessage } from "../../validation-messages.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const discordSpec = defineSpec({
  name: "discord",
  manifest: manifest as ChannelManifest,
  config: {
    variables: {
      DISCORD_API_BASE: z._default(httpUrl, "https://discord.com/api/v10"),
      DISCORD_APPLICATION_ID: z.optional(
        z.string().check(z.regex(/^\d{1,20}$/, { error: ruleMessage("must be digits") })),
      ),
      DISCORD_PUBLIC_KEY: z.optional(
        z
          .string()
          .check(z.regex(/^[0-9a-fA-F]{64}$/, { error: ruleMessage("must be 64 hexadecimal characters") })),
      ),
    },
    settings: (env, need) => ({
      apiBase: env.DISCORD_API_BASE,
      applicationId: need("DISCORD_APPLICATION_ID", env.DISCORD_APPLICATION_ID),
      publicKey: need("DISCORD_PUBLIC_KEY", env.DISCORD_PUBLIC_KEY),
    }),
  },
});
