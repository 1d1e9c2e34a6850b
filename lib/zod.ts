/**
 * The zod every module of `lib/` and `functions/` imports, as `import * as z from "…/zod.ts"`: `zod/mini`,
 * with zod's English messages.
 *
 * zod's classic API (`import { z } from "zod"`) keeps its JSON Schema, compile and from-JSON-Schema code in
 * every bundle whatever is used (~190 KB of each Lambda bundle); `zod/mini` has the same schemas, checks,
 * issues and messages, written as functions (`z.optional(s)`, `s.check(z.maxLength(n))`), so a bundle keeps
 * only what it calls. Two things keep it that way (test/template/bundles.test.ts holds every bundle to its
 * size budget):
 * - a namespace import (`import * as z`), never `import { z } from "zod/mini"`: a namespace passed on as a
 *   value (`export { z }`) is a whole object to esbuild, and every export of zod comes with it;
 * - package.json lists this file under `sideEffects`: nothing of this file itself is used, so esbuild would
 *   otherwise drop the `config` call below from the bundles.
 *
 * Unlike the classic API, `zod/mini` loads no locale: without the call below every message would be
 * "Invalid input", and the messages are part of the contract (400 bodies, tool errors, config errors).
 * (Recursive schemas would also need `config({ memoizer: memoizer() })`, as the classic API does; Handraise
 * has none.)
 */
import { en } from "zod/locales";
import { config } from "zod/mini";

config(en());

export * from "zod/mini";
