ANSWERS = {"step 1.1 of \"The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?\"":"Greenwich Village, New York City","step 2.1 of \"The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?\"":"fact-43d290"}

def find_entity_a61146153ca7(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
