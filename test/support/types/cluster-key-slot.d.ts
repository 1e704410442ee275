/** The Redis Cluster hash slot (0-16383) of a key, hash tags honoured: the algorithm ioredis routes by. */
declare module 'cluster-key-slot' {
  function calculateSlot(key: string | Buffer): number;
  namespace calculateSlot {
    function generateMulti(keys: (string | Buffer)[]): number;
  }
  export = calculateSlot;
}
