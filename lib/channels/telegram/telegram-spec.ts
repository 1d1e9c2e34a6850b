/** Telegram's spec: its manifest (owner, secrets) and its settings. */
import { httpUrl } from "../../config-values.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const telegramSpec = defineSpec({
  name: "telegram",
  manifest: manifest as ChannelManifest,
  config: {
    variables: { TELEGRAM_API_BASE: z._default(httpUrl, "https://api.telegram.org") },
    settings: (env) => ({ apiBase: env.TELEGRAM_API_BASE }),
  },
});
