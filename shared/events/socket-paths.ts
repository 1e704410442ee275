/**
 * Where the socket tier listens. The API advertises it in pubsub registrations and the socket
 * role serves it, so it lives here, beside the topics, rather than in either role.
 */
export const SOCKET_PATH = '/socket';
export const WEBSOCKET_PATH = `${SOCKET_PATH}/websocket`;
