import asyncio, sys
from playwright.async_api import async_playwright
from tests.webapp.chatting import person
from tests.webapp.browser import Contexts, CHROMIUM, CHROMIUM_ARGS
from tests.webapp.telegram import open_in_telegram, LIGHT
async def main():
    from tests.webapp.server import Server, DEV_TOKEN
    from pathlib import Path
    srv = Server(Path("/tmp/chatui_dbg.log"), extra_env={"DEV_TOKEN": DEV_TOKEN}, port=7136)
    srv.wait_ready(90)
    base = srv.url
    ana = await person("Ana", "en")
    table = await ana.table(base); await ana.sit(base, table)
    async with async_playwright() as pw:
        br = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        c = Contexts(br)
        page = await open_in_telegram(c, f"{base}/?table={table}", ana.init_data, theme=LIGHT)
        page.on("console", lambda m: print("CONSOLE", m.text))
        await asyncio.sleep(8)
        print("ERRORS", page.errors)
        print(await page.evaluate("(() => { try { const c = svara.current.chat; svara.current.render(); return [typeof c, !!svara.current.root.querySelector('.felt-wrap'), !!document.querySelector('.chat-open')]; } catch (e) { return String(e) + e.stack; } })()"))
        print(await page.evaluate("document.querySelector('#screen').innerHTML.slice(0,500)"))
        await br.close()
    srv.stop()
asyncio.run(main())
