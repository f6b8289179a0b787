-- Issue 29: notification mails carry headers of their own (List-Unsubscribe and
-- List-Unsubscribe-Post, RFC 8058), kept with the message until it is sent or given up. Their id
-- is their claim's (server/bff/notification-mail.ts): a mail written again after a crash is the
-- same row (the primary key is the dedupe key).
ALTER TABLE mail_outbox ADD COLUMN headers jsonb;
