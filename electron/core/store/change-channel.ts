// The channel PostgreSQL's triggers notify when what caches hold changes (migrations.ts), and that
// each instance listens on (pg-change-feed.ts). Apart, so that SQLite's migrations load no driver.
export const CHANGE_CHANNEL = 'mgw_change';
