#!/bin/sh
# Lets the streaming replica connect for replication (password auth inside the compose network).
set -e
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
