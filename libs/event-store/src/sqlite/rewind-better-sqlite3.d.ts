// The npm alias of better-sqlite3 (sqlite-driver.ts says why) has the typings of the package it names.
declare module 'rewind-better-sqlite3' {
  import Database = require('better-sqlite3');
  export = Database;
}
