declare const __REIN_VERSION__: string;
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version') process.stdout.write(`${__REIN_VERSION__}\n`);
  return 0;
}
