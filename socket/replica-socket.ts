import { WebSocket } from 'ws';
import type { SocketConnection } from './socket-connection';

/**
 * The ws socket of a replica's connection, carrying its SocketConnection. ws calls event
 * listeners with the socket as `this`, so with the connection on the socket one listener
 * function per replica serves every connection, instead of a closure (and its context) per
 * connection and event: at 100,000 connections those closures were about 300 bytes each.
 */
export class ReplicaSocket extends WebSocket {
  conn: SocketConnection | null = null;
}
