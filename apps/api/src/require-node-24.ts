/**
 * Imported first by main.ts: on a Node.js older than 24 the server would crash without a word
 * (native addons built for Node 24 segfault), so it stops here with what to do instead.
 * scripts/node/require-node-24.cjs says the same for npm's scripts.
 */
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `Rewind needs Node.js 24 or later, and this is Node.js ${process.version}: run \`. scripts/node/use-node24.sh\` in this shell ` +
      '(or install Node.js 24 from https://nodejs.org, or `nvm install 24`), then start it again.\n',
  );
  process.exit(1);
}

export {};
