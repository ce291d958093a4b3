-- A new event wakes the outbox's listeners (the live relay, the webhook workers) when its
-- transaction commits: the database sends the NOTIFY, so no write has to remember it.
CREATE FUNCTION "notify_rental_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rental_outbox', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Event_notify_rental_outbox"
AFTER INSERT ON "Event"
FOR EACH STATEMENT EXECUTE FUNCTION "notify_rental_outbox"();
