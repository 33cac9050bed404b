// Stands in for the person's browser ($BROWSER) in conformance runs: opens the sign-in URL by fetching it
// and following its redirects. The suite's authorization server grants at once, so this lands on Rein's
// loopback callback. Only ever given the suite's own loopback servers (client.mjs sets it).
const res = await fetch(process.argv[2]);
await res.text();
