import { createApp } from 'vue';
import App from './ui/App.vue';
import './ui/base.css';

createApp(App).mount('#app');
