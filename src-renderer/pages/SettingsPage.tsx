import { NotificationsSection } from '../components/Notifications.tsx';
import { PageHeader } from '../components/ui.tsx';
import { BrowserHostsSection } from './settings/BrowserHostsSection.tsx';
import { KeysSection } from './settings/KeysSection.tsx';
import { ProvidersSection } from './settings/ProvidersSection.tsx';
import { ServiceLogSection } from './settings/ServiceLogSection.tsx';
import { SystemSection } from './settings/SystemSection.tsx';
import { WebhooksSection } from './settings/WebhooksSection.tsx';

export function SettingsPage() {
  return (
    <section className="page settings">
      <PageHeader
        title="Settings"
        subtitle="Keys, webhooks, model providers, this machine, browser hosts, notifications and the service log."
      />
      <div className="settings-grid">
        <KeysSection />
        <WebhooksSection />
        <ProvidersSection />
        <SystemSection />
        <BrowserHostsSection />
        <NotificationsSection />
        <ServiceLogSection />
      </div>
    </section>
  );
}
