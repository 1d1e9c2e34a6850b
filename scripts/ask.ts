/**
 * `npm run -s ask -- --owner <owner> --question "…" --options "A,B" [--wait] …`: asks one question over the
 * HTTP API (HANDRAISE_URL, HANDRAISE_API_KEY) and prints the created question, or with --wait its result, as
 * JSON on stdout. Exit 0 answered, 2 no answer, 1 error; Ctrl-C (or SIGTERM, as a CI runner stops a job)
 * while it runs cancels the question first. Everything else: scripts/lib/ask.ts and docs/api.md.
 */
import { runAsk } from "./lib/ask.ts";

const interrupt = new AbortController();
// Ctrl-C reaches this process more than once (the terminal signals npm, tsx and node alike, and npm and tsx
// pass it on): the first one counts, and the cancel that follows is bounded in time by itself.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (!interrupt.signal.aborted) interrupt.abort(signal);
  });
}

process.exitCode = await runAsk({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interrupt: interrupt.signal,
});
