// The plugin-local binary the build places (make pi-build); the tests run
// from plugins/pi.
import { resolve } from "node:path";

/** BIN is plugins/pi/bin/notesoup. */
export const BIN = resolve("bin", "notesoup");
