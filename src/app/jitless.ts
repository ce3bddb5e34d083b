// Zod compiles object parsers with `new Function` when it may, probing with
// `Function('')` on first use; under the app's Content-Security-Policy
// (no 'unsafe-eval') that probe is a reported violation. The app tells Zod not
// to try. Imported first by main.tsx, before any schema is used.
import { config } from 'zod';

config({ jitless: true });
