// The ComfyUI emulator's websocket hub, after server.py's websocket_handler / send / send_json /
// send_bytes / send_image / send_image_with_metadata, protocol.py (BinaryEventTypes) and
// comfy_api/feature_flags.py:
//  - GET /ws?clientId=X upgrades; without clientId the sid is uuid4().hex. A second socket with
//    the same clientId replaces the first in the table (the old one stays open but gets nothing),
//    and when any socket of that sid closes the table entry is removed, as the real handler's
//    `finally: self.sockets.pop(sid)` does.
//  - On connect: {"type":"status","data":{"status":{"exec_info":{"queue_remaining":N}},"sid":sid}},
//    then, if that sid is the running prompt's client, {"type":"executing","data":{"node":id}}.
//  - A first text message {"type":"feature_flags","data":{...}} is stored and answered with the
//    server's flags; with supports_preview_metadata the previews are PREVIEW_IMAGE_WITH_METADATA.
//  - send(event, data, sid): sid null broadcasts to every socket; an unknown sid drops the message.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { uuid4Hex } from './comfyui-python.js';

export const BINARY_PREVIEW_IMAGE = 1;
export const BINARY_PREVIEW_IMAGE_WITH_METADATA = 4;
export const SERVER_FEATURES = { supports_preview_metadata: true, max_upload_size: 100 * 1024 * 1024 };

export interface WsConnection {
  clientId: string;
  /** The clientId query parameter as sent ('' when absent). */
  requested: string;
  at: number;
}

export interface SentMessage {
  sid: string | null;
  type: string;
  data: unknown;
}

export interface HubState {
  queueRemaining(): number;
  /** The running prompt's client_id and the node it is executing (server.client_id, last_node_id). */
  running(): { clientId: string | null; lastNodeId: string | null };
}

export class WsHub {
  readonly connections: WsConnection[] = [];
  /** Every JSON message handed to send(), in order (for tests; binary frames are not listed). */
  readonly sent: SentMessage[] = [];
  refuse: { status: number } | undefined;
  private readonly sockets = new Map<string, WebSocket>();
  private readonly metadata = new Map<string, Record<string, unknown>>();
  private readonly all = new Set<WebSocket>();
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(private readonly state: HubState) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    if (url.pathname !== '/ws' && url.pathname !== '/api/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 14\r\nConnection: close\r\n\r\n404: Not Found');
      return;
    }
    if (this.refuse) {
      const reason = 'WebSocket refused by the emulator';
      socket.end(`HTTP/1.1 ${this.refuse.status} Refused\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\nConnection: close\r\n\r\n${reason}`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnect(ws, url.searchParams.get('clientId') ?? ''));
  }

  private onConnect(ws: WebSocket, requested: string): void {
    const sid = requested || uuid4Hex();
    this.sockets.delete(sid);
    this.sockets.set(sid, ws);
    this.metadata.set(sid, { feature_flags: {} });
    this.all.add(ws);
    this.connections.push({ clientId: sid, requested, at: Date.now() });
    let first = true;
    ws.on('message', (raw, isBinary) => {
      if (isBinary) return;
      try {
        const message = JSON.parse(raw.toString()) as { type?: unknown; data?: unknown };
        if (first && message.type === 'feature_flags') {
          this.metadata.set(sid, { feature_flags: (message.data as Record<string, unknown>) ?? {} });
          this.send('feature_flags', { ...SERVER_FEATURES }, sid);
        }
        first = false;
      } catch {
        // server.py logs "Invalid JSON received from client" and goes on.
      }
    });
    ws.on('close', () => {
      this.all.delete(ws);
      this.sockets.delete(sid);
      this.metadata.delete(sid);
    });
    ws.on('error', () => undefined);
    this.send('status', { status: { exec_info: { queue_remaining: this.state.queueRemaining() } }, sid }, sid);
    const running = this.state.running();
    if (running.clientId === sid && running.lastNodeId !== null) this.send('executing', { node: running.lastNodeId }, sid);
  }

  /** The client told us it takes previews with metadata (feature_flags.supports_feature). */
  supportsPreviewMetadata(sid: string | null): boolean {
    if (sid === null) return false;
    const flags = this.metadata.get(sid)?.feature_flags as Record<string, unknown> | undefined;
    return flags?.supports_preview_metadata === true;
  }

  send(event: string, data: unknown, sid: string | null = null): void {
    this.sent.push({ sid, type: event, data });
    this.deliver(JSON.stringify({ type: event, data }), sid);
  }

  /** PREVIEW_IMAGE: [u32 BE 1][u32 BE image type: 1 JPEG, 2 PNG][image bytes]. */
  sendPreview(format: 'JPEG' | 'PNG', image: Buffer, sid: string | null): void {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(BINARY_PREVIEW_IMAGE, 0);
    head.writeUInt32BE(format === 'JPEG' ? 1 : 2, 4);
    this.deliver(Buffer.concat([head, image]), sid);
  }

  /** PREVIEW_IMAGE_WITH_METADATA: [u32 BE 4][u32 BE metadata length][metadata JSON][image bytes]. */
  sendPreviewWithMetadata(format: 'JPEG' | 'PNG', image: Buffer, metadata: Record<string, unknown>, sid: string | null): void {
    const json = Buffer.from(JSON.stringify({ ...metadata, image_type: format === 'PNG' ? 'image/png' : 'image/jpeg' }));
    const head = Buffer.alloc(8);
    head.writeUInt32BE(BINARY_PREVIEW_IMAGE_WITH_METADATA, 0);
    head.writeUInt32BE(json.length, 4);
    this.deliver(Buffer.concat([head, json, image]), sid);
  }

  private deliver(payload: string | Buffer, sid: string | null): void {
    const targets = sid === null ? [...this.sockets.values()] : this.sockets.has(sid) ? [this.sockets.get(sid)!] : [];
    for (const ws of targets) {
      if (ws.readyState === ws.OPEN) ws.send(payload, { binary: typeof payload !== 'string' });
    }
  }

  /** Kills every websocket without a close handshake (the client sees code 1006). */
  terminateAll(): void {
    for (const ws of this.all) ws.terminate();
  }

  async close(): Promise<void> {
    this.terminateAll();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
