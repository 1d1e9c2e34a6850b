/** Telegram's spec: its manifest (owner, secrets) and its settings. */
import { apiBaseConfig, type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const telegramSpec = defineSpec({
  name: "telegram",
  manifest: manifest as ChannelManifest,
  config: apiBaseConfig("TELEGRAM_API_BASE", "https://api.telegram.org"),
});
