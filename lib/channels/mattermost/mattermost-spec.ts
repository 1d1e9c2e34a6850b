/** Mattermost's spec: its manifest (owner, secrets) and its settings. */
import { httpUrl } from "../../config-values.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const mattermostSpec = defineSpec({
  name: "mattermost",
  manifest: manifest as ChannelManifest,
  config: {
    variables: { MATTERMOST_URL: z.optional(httpUrl) },
    settings: (env, need) => ({
      url: need("MATTERMOST_URL", env.MATTERMOST_URL),
      /** The HTTP API's base URL: buttons and dialogs call the webhook back at `<it>/webhooks/mattermost`. */
      publicUrl: need("HANDRAISE_PUBLIC_URL", env.HANDRAISE_PUBLIC_URL),
    }),
  },
});
