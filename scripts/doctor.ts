/**
 * `npm run -s doctor -- --url <api url> --key <key> [--stage s] [--ask <owner>]`: checks a deployed or local
 * stack from outside, one line per check (`✓ …` or `✗ … — <the fix>`); exit 0 when every check passed, 1
 * otherwise. Ctrl-C (or SIGTERM) while `--ask` waits cancels its question first. Everything else:
 * scripts/lib/doctor.ts and docs/deploy.md.
 */
import { runDoctor } from "./lib/doctor.ts";

const interrupt = new AbortController();
// Ctrl-C reaches this process more than once (the terminal signals npm, tsx and node alike): the first counts.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (!interrupt.signal.aborted) interrupt.abort(signal);
  });
}

process.exitCode = await runDoctor({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interrupt: interrupt.signal,
});
