// Stands in for a person's browser in tests ($BROWSER): opens the URL by fetching it and following its
// redirects, so an authorization server that grants at once lands on Rein's loopback callback.
const res = await fetch(process.argv[2]);
await res.text();
