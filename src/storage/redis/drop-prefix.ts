/**
 * Removing every key under a prefix: what `hyphae verify` does to the ledger it wrote beside the
 * user's (never the user's own prefix). On a cluster every master is scanned, and keys are unlinked
 * one by one, since they lie in many slots.
 */
import { importPeerDependency } from '../../peer-dependency.js';
import { clusterOptions } from './owned-cluster.js';

interface NodeClient {
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}

interface RedisModule {
  createClient(options: { url: string }): NodeClient;
  createCluster(options: ReturnType<typeof clusterOptions>): {
    connect(): Promise<unknown>;
    readonly masters: readonly unknown[];
    nodeClient(node: unknown): Promise<NodeClient>;
    close(): Promise<unknown>;
  };
}

async function dropOnNode(client: NodeClient, prefix: string, cluster: boolean): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = (await client.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '500'])) as [
      string,
      string[],
    ];
    cursor = next;
    if (keys.length === 0) continue;
    if (cluster) await Promise.all(keys.map((key) => client.sendCommand(['UNLINK', key])));
    else await client.sendCommand(['UNLINK', ...keys]);
  } while (cursor !== '0');
}

/** Unlink every key under `prefix` on the server of `url`, or on every master of the cluster its URLs name. */
export async function dropRedisPrefix(
  urls: readonly [string, ...string[]],
  prefix: string,
  cluster: boolean,
): Promise<void> {
  const redis = await importPeerDependency(
    async () => (await import('redis')) as unknown as RedisModule,
    'redis',
    'The Redis ledger storage',
  );
  if (cluster) {
    const client = redis.createCluster(clusterOptions(urls));
    await client.connect();
    try {
      for (const node of client.masters) await dropOnNode(await client.nodeClient(node), prefix, true);
    } finally {
      await client.close();
    }
    return;
  }
  const client = redis.createClient({ url: urls[0] });
  await client.connect();
  try {
    await dropOnNode(client, prefix, false);
  } finally {
    await (client.close?.() ?? client.quit?.());
  }
}
