// Stops `npm start`, `npm test`, `npm run build`… on a Node.js older than 24 with one line that
// says what to do (older versions fail later and obscurely: ERR_UNKNOWN_FILE_EXTENSION ".mts",
// or a native addon built for Node 24 crashing the server). Plain CommonJS: runs on any Node.
'use strict';
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Rewind needs Node.js 24 or later, and this is Node.js ${process.version}: run \`. scripts/node/use-node24.sh\` in this shell ` +
      '(or install Node.js 24 from https://nodejs.org, or `nvm install 24`), then run the command again.',
  );
  process.exit(1);
}
