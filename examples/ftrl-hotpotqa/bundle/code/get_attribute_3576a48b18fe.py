ANSWERS = {"step 1.2 of \"Who was known by his stage name Aladin and helped organizations improve their performance as a consultant?\"":"Eenasul Fateh"}

def get_attribute_3576a48b18fe(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
