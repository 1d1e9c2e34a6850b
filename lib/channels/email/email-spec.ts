/** E-mail's spec: its manifest (owner; no secrets) and its one setting, the sender. */
import { ruleMessage } from "../../validation-messages.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import { EMAIL_ADDRESS } from "./email-address.ts";
import manifest from "./manifest.json" with { type: "json" };

export const emailSpec = defineSpec({
  name: "email",
  manifest: manifest as ChannelManifest,
  config: {
    variables: {
      /** The address mails are sent from: an identity SES has verified (deployed: the `emailFrom` parameter). */
      HANDRAISE_EMAIL_FROM: z.optional(
        z.string().check(z.regex(EMAIL_ADDRESS, { error: ruleMessage("must be an e-mail address") })),
      ),
    },
    settings: (env, need) => ({ from: need("HANDRAISE_EMAIL_FROM", env.HANDRAISE_EMAIL_FROM) }),
  },
});
