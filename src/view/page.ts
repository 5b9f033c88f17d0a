/**
 * The one page of `bas view`: the app (src/web, the same code as the report pages') inline,
 * with the report pages' style and a few rules of its own, allowed to run by a nonce of this
 * answer only (the server's Content-Security-Policy refuses any other script). Nothing is
 * fetched from elsewhere, so it works offline; the app asks the JSON API, and every view has
 * an address that reopens it (src/display/route.ts).
 */
import { appScript } from '../report/html/app-script.js';
import { PAGE_CSS } from '../report/html/page.js';

/** The page, its script and style allowed by `nonce`. */
export function viewPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bas view</title>
<style nonce="${nonce}">${PAGE_CSS}</style>
</head>
<body>
<header class="bar"><a href="#/">bas view</a><span>runs, rollouts and comparisons, read from the folder it serves</span></header>
<main id="app"></main>
<script nonce="${nonce}">${appScript()}</script>
</body>
</html>
`;
}
