// Every session of the app runs in UTC. Timestamps are `timestamp without
// time zone` holding UTC: Prisma writes and reads them as UTC, while SQL
// writes them with now() (the ingress's receivedAt, runs' times) in the
// session's zone. A server whose default zone is another (timezone in
// postgresql.conf, ALTER DATABASE ... SET timezone) or, for the embedded
// database, a machine in another zone (PGlite takes the process's) would
// otherwise shift every such timestamp by its offset.
export const SESSION_TIME_ZONE_SQL = `SET TIME ZONE 'UTC'`;
