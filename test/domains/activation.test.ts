import test from 'ava';
import { createDomain, eventsOf, publish, startDomainEnv } from './env.js';

test('a domain is never left verified with its sandbox project not activated: both commit or neither', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  const { sqlite } = ph.server.kernel.store;
  // The activation fails (as a full disk or a crash between two commits would make it).
  sqlite.exec(
    "create trigger refuse_activation before update of status on projects begin select raise(abort, 'refused'); end",
  );
  const failed = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(failed.status, 500);
  t.is((await ph.request('GET', `/v1/domains/${domain.id}`)).body.status, 'pending');
  t.deepEqual(
    (await eventsOf(ph, ph.owner.projectId)).map((e) => e.type),
    ['domain.created'],
  );

  sqlite.exec('drop trigger refuse_activation');
  const verified = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(verified.body.status, 'verified');
  t.is((await ph.server.services.projects.get(ph.owner.projectId))?.status, 'active');
  const audit = sqlite
    .prepare("select count(*) as n from audit_log where action = 'project.activate' and project_id = ?")
    .get(ph.owner.projectId);
  t.deepEqual(audit, { n: 1 });
});
