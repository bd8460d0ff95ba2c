/**
 * @bizdata/web: the web app's built files (dist/app: `index.html`, hashed scripts and styles under
 * `assets/`) for a server to serve. The app itself runs in the browser and reads everything it
 * shows from the service (the service document, `$metadata` and its annotations), so one build
 * serves any model. The host serves it at `/app`; any static server can too, with a `config.json`
 * beside `index.html` naming the service (see the web app guide).
 *
 * @example
 * const app = webAppFiles();
 * const file = await app.file("index.html"); // { body, contentType, etag, immutable } or undefined
 */

export { WEB_APP_CLIENT_ID, type WebAppConfig } from "./web-app-config.js";
export { type WebAppFile, type WebAppFiles, webAppFiles } from "./web-app-files.js";
