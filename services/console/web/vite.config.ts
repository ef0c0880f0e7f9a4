// Builds the console's web app (Preact) into web/dist, which the console server serves: no CDN, no
// fetch at run time. Run by the package's postinstall and `npm run build -w @rlfactory/console`.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 200 },
});
