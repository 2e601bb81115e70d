// The part of the web-push package (pure JS, no types of its own) svc uses: the encrypted request of
// one push (RFC 8291 aes128gcm body, RFC 8292 VAPID Authorization), which svc then sends itself.
declare module 'web-push' {
  interface RequestDetails {
    method: 'POST';
    headers: Record<string, string | number>;
    body: Buffer | null;
    endpoint: string;
  }
  interface RequestOptions {
    TTL?: number;
    urgency?: 'very-low' | 'low' | 'normal' | 'high';
    topic?: string;
    contentEncoding?: 'aes128gcm' | 'aesgcm';
    vapidDetails?: { subject: string; publicKey: string; privateKey: string };
  }
  const webpush: {
    generateRequestDetails(subscription: { endpoint: string; keys: { p256dh: string; auth: string } }, payload?: Buffer | string | null, options?: RequestOptions): RequestDetails;
  };
  export default webpush;
}
